-- A scheduled change an approval policy covers is bound to the change request that must approve it.
ALTER TABLE scheduled_changes ADD COLUMN change_request_id uuid REFERENCES change_requests(id) ON DELETE SET NULL;
