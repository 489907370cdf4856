-- The delivery worker's second lane: an endpoint's due retries, oldest first, found without walking
-- past its backlog of first attempts (those stay on webhook_deliveries_due_idx), so a retry falls
-- due on schedule even while the endpoint's first attempts queue up behind a burst.
CREATE INDEX webhook_deliveries_retry_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at, id)
  WHERE status = 'pending' AND attempts > 0;
