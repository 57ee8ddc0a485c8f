-- The message a failed query was answered with (the warehouse's own words for query-failed), shown on the
-- dashboard's query detail page. Written only for failures; NULL otherwise and for entries made before.
ALTER TABLE query_log ADD COLUMN error_detail TEXT;
