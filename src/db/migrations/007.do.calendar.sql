-- The app's today, in one place for SQL and TypeScript alike (src/calendar/calendar.ts
-- calls it): the date in the app's time zone, unless the database pins it with
-- `ALTER DATABASE … SET billrun.today = 'yyyy-mm-dd'`. The pin is for rehearsals and
-- tests, whose fixed dates must stay in the past (a future reading is refused) whatever
-- day they run on; production never sets it.
CREATE FUNCTION billrun_today(time_zone text) RETURNS date
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT coalesce(nullif(current_setting('billrun.today', true), '')::date, (now() AT TIME ZONE time_zone)::date) $$;
