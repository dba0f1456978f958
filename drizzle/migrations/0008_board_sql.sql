-- Job board search (GET /api/jobs/board?search=): the trigram operators its index uses (0012_board_search_sql).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
