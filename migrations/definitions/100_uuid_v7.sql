-- A time-ordered id, as the CLI makes them (UUIDv7: 48 bits of Unix milliseconds, then random bits), so jobs
-- enqueued from SQL sort by enqueue time like the others. PostgreSQL 15 has no uuidv7().
CREATE OR REPLACE FUNCTION ferry.uuid_v7() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
    SELECT encode(
               set_bit(set_bit(
                   overlay(uuid_send(gen_random_uuid())
                           PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                           FROM 1 FOR 6),
                   52, 1), 53, 1),   -- version 4 (0100) → 7 (0111); the variant bits stay 10
               'hex')::uuid
$$;
