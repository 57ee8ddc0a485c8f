-- A query's event is written with its record, alone; the dispatcher then writes one delivery per endpoint
-- (fan-out), so that POST /query costs the same whatever the number of endpoints. `fanned_out` is false
-- until then; events written with their deliveries (test events) are fanned out from the start.
ALTER TABLE webhook_events ADD COLUMN fanned_out BOOLEAN NOT NULL DEFAULT true;
CREATE INDEX webhook_events_fanout ON webhook_events (created_at) WHERE NOT fanned_out;
-- At most one delivery per event and endpoint, whichever process fans out.
CREATE UNIQUE INDEX webhook_deliveries_event_endpoint ON webhook_deliveries (event_id, endpoint_id);
