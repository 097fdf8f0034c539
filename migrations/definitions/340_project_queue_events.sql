-- Projects pause and resume events into ferry.queue_controls: the latest event per queue wins.
CREATE OR REPLACE FUNCTION ferry.project_queue_events() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    INSERT INTO ferry.queue_controls AS c (queue, paused, changed_at, reason)
    SELECT DISTINCT ON (n.queue) n.queue, n.type = 'paused', n.recorded_at, n.data->>'reason'
      FROM new_events n
     ORDER BY n.queue, n.position DESC
    ON CONFLICT (queue) DO UPDATE
       SET paused = excluded.paused, changed_at = excluded.changed_at, reason = excluded.reason;
    RETURN NULL;
END
$$;
