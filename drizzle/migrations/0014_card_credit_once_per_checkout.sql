-- A card checkout credits once: its `checkout.session.completed` and its delayed
-- `checkout.session.async_payment_succeeded` are two events of one payment (web/lib/gateway/billing/card.ts).
ALTER TABLE "card_credit_events" ADD CONSTRAINT "card_credit_events_checkout_session_id" UNIQUE("checkout_session_id");