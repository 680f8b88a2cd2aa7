-- Retention (T10) deletes completed deliveries oldest first, a batch at a time: without this index
-- every batch would scan the table past the rows earlier batches deleted.
CREATE INDEX ${outbox_deliveries}_completed_idx ON ${outbox_schema}.${outbox_deliveries} (completed_at)
    WHERE status = 'completed';
