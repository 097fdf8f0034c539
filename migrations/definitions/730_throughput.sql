-- Jobs finished and bytes moved per minute and queue over the last hour: the counters plus pending deltas.
CREATE OR REPLACE VIEW ferry.throughput AS
SELECT t.minute, t.queue, sum(t.succeeded)::bigint AS succeeded, sum(t.failed)::bigint AS failed,
       sum(t.bytes)::bigint AS bytes
  FROM (SELECT minute, queue, succeeded, failed, bytes FROM ferry.throughput_counts
         WHERE minute >= date_trunc('minute', now()) - interval '59 minutes'
        UNION ALL
        SELECT minute, queue, succeeded, failed, bytes FROM ferry.throughput_deltas
         WHERE minute >= date_trunc('minute', now()) - interval '59 minutes') t
 GROUP BY t.minute, t.queue;
