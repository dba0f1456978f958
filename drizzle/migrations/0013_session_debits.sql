-- Payment-session debits in batches (web/lib/gateway/billing/session.ts): the calls of one session that
-- arrive while a debit of that session is in flight are debited together by one call of this function, in
-- their order, exactly as one statement per call would: each checks and takes its price (never below zero),
-- takes the next nonce and records its voucher, or debits nothing (its own subtransaction) and says why.
-- p_calls: [{"amount": "0.05", "plugin": "agent", "key": null | "<Idempotency-Key>", "now": "<ISO time>"}, …];
-- each call's expiry is checked at its own arrival time `now`. Outcomes: debited, invalid (unknown, other
-- wallet, expired, closed), insufficient, idempotent (the Idempotency-Key has a voucher already),
-- voucher_failed (the voucher could not be recorded, or the amount is not positive: nothing debited).
CREATE OR REPLACE FUNCTION debit_payment_session(
  p_session text,
  p_wallet text,
  p_calls jsonb
) RETURNS TABLE (ord integer, outcome text, voucher text, remaining text)
LANGUAGE plpgsql AS $$
DECLARE
  v_nonce bigint;
  v_balance numeric;
  v_usable boolean;
  v_constraint text;
  v_amount numeric;
  v_now timestamptz;
BEGIN
  FOR i IN 1 .. jsonb_array_length(p_calls) LOOP
    ord := i;
    voucher := NULL;
    remaining := NULL;
    BEGIN
      v_amount := (p_calls -> (i - 1) ->> 'amount')::numeric;
      v_now := (p_calls -> (i - 1) ->> 'now')::timestamptz;
      IF v_amount IS NULL OR v_amount <= 0 OR v_now IS NULL THEN
        RAISE EXCEPTION 'debit_payment_session: call % needs a positive amount and its arrival time', i;
      END IF;
      UPDATE payment_sessions
      SET balance_usd = balance_usd - v_amount, nonce = nonce + 1, updated_at = now()
      WHERE id = p_session AND wallet_address = p_wallet AND status = 'active'
        AND expires_at > v_now AND balance_usd >= v_amount
      RETURNING nonce, balance_usd INTO v_nonce, v_balance;
      IF FOUND THEN
        voucher := 'session:' || p_session || ':' || v_nonce;
        INSERT INTO payment_session_vouchers (id, session_id, nonce, amount_usd, plugin_id, idempotency_key)
        VALUES (voucher, p_session, v_nonce, v_amount, p_calls -> (i - 1) ->> 'plugin', p_calls -> (i - 1) ->> 'key');
        outcome := 'debited';
        remaining := v_balance::text;
      ELSE
        SELECT balance_usd, (status = 'active' AND expires_at > v_now) INTO v_balance, v_usable
        FROM payment_sessions WHERE id = p_session AND wallet_address = p_wallet;
        IF v_usable IS TRUE THEN
          outcome := 'insufficient';
          remaining := v_balance::text;
        ELSE
          outcome := 'invalid';
        END IF;
      END IF;
    EXCEPTION
      WHEN unique_violation THEN
        GET STACKED DIAGNOSTICS v_constraint = CONSTRAINT_NAME;
        outcome := CASE WHEN v_constraint = 'payment_session_vouchers_idempotency_key'
          THEN 'idempotent' ELSE 'voucher_failed' END;
        voucher := NULL;
      WHEN OTHERS THEN
        outcome := 'voucher_failed';
        voucher := NULL;
    END;
    RETURN NEXT;
  END LOOP;
END;
$$;
