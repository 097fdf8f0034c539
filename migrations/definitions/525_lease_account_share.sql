-- A worker process's share of an account's budget (table ferry.account_shares, migration 0041): renews the
-- caller's lease with its demand and answers the account's limits and the caller's fraction of them (its demand
-- over the total demand of unexpired leases, its own included). An account without limits writes nothing and
-- answers a fraction of 1. Expired leases of the account are removed on the way, so the table holds about one row
-- per live process and limited account.
CREATE OR REPLACE FUNCTION ferry.lease_account_share(p_account text, p_worker text, p_demand double precision, p_seconds double precision)
RETURNS TABLE (tps_limit double precision, bwlimit bigint, fraction double precision, holders integer)
LANGUAGE plpgsql AS $$
DECLARE
    v_tps double precision;
    v_bw bigint;
BEGIN
    SELECT (a.settings->>'tps_limit')::float8, (a.settings->>'bwlimit')::bigint INTO v_tps, v_bw
      FROM ferry.accounts a WHERE a.name = p_account;
    IF v_tps IS NULL AND v_bw IS NULL THEN
        DELETE FROM ferry.account_shares s WHERE s.account = p_account;
        RETURN QUERY SELECT v_tps, v_bw, 1.0::float8, 0;
        RETURN;
    END IF;
    DELETE FROM ferry.account_shares s WHERE s.account = p_account AND s.expires_at <= now();
    INSERT INTO ferry.account_shares AS s (account, worker, demand, expires_at)
         VALUES (p_account, p_worker, least(greatest(p_demand, 1), 1000000), now() + make_interval(secs => least(greatest(p_seconds, 1), 60)))
    ON CONFLICT (account, worker) DO UPDATE SET demand = excluded.demand, expires_at = excluded.expires_at;
    RETURN QUERY
        SELECT v_tps, v_bw, least(greatest(p_demand, 1), 1000000) / sum(s.demand), count(*)::int
          FROM ferry.account_shares s WHERE s.account = p_account AND s.expires_at > now();
END;
$$;
