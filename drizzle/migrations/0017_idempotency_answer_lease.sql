-- A voucher's created_at is its call's arrival time (the web's clock, as the expiry check uses), so the
-- answer lease of an Idempotency-Key (web/lib/gateway/billing/session.ts: a voucher without an answer
-- ANSWER_LEASE_MS after its call is one whose answer will never come) is measured on the same clock.
-- Otherwise debit_payment_session is 0013's.
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
        INSERT INTO payment_session_vouchers
          (id, session_id, nonce, amount_usd, plugin_id, idempotency_key, created_at)
        VALUES (voucher, p_session, v_nonce, v_amount, p_calls -> (i - 1) ->> 'plugin',
          p_calls -> (i - 1) ->> 'key', v_now);
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
