-- Account budgets across the fleet (issue 35).
--
-- An account's `tps_limit` and `bwlimit` are one budget for every worker process on every machine: each process
-- holding work for a limited account leases a share of it here for a few seconds (definition 525), weighted by its
-- demand (the jobs it runs on the account), and renews it about once a second. The database sees one write per
-- process and account per renewal, never one per request. A process that dies stops renewing; its share lapses
-- with its lease and the others take it over.
CREATE TABLE ferry.account_shares (
    account    text             NOT NULL CHECK (octet_length(account) BETWEEN 1 AND 256),
    worker     text             NOT NULL CHECK (octet_length(worker) BETWEEN 1 AND 256),
    demand     double precision NOT NULL CHECK (demand > 0 AND demand <= 1000000),
    expires_at timestamptz      NOT NULL,
    PRIMARY KEY (account, worker)
);
COMMENT ON TABLE ferry.account_shares IS
    'Which worker processes use a rate-limited account now, and how much: each takes limit × demand / total demand.';
GRANT SELECT, INSERT, UPDATE, DELETE ON ferry.account_shares TO ferry_worker;
