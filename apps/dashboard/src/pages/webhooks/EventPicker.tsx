import { useId } from 'react';
import { useApiQuery } from '../../queries';
import { QueryResult } from '../../ui';

/** `['*']` is every event, now and future ones; otherwise the chosen names. */
export function EventPicker({ value, onChange }: { value: string[]; onChange: (events: string[]) => void }) {
  const id = useId();
  const types = useApiQuery('/webhook-event-types');
  const all = value.includes('*');
  return (
    <fieldset className="events">
      <legend>Events</legend>
      <label className="check">
        <input type="radio" name={`${id}-scope`} checked={all} onChange={() => onChange(['*'])} />
        Every event (including ones added later)
      </label>
      <label className="check">
        <input type="radio" name={`${id}-scope`} checked={!all} onChange={() => onChange([])} />
        Only these events:
      </label>
      {!all && (
        <QueryResult query={types} loading="Loading event types…" failed="Event types could not be loaded">
          {(data) => (
            <div className="event-list" aria-label="Event types">
              {data.map((t) => (
                <label key={t.name} className="check" title={t.description}>
                  <input
                    type="checkbox"
                    disabled={all}
                    checked={!all && value.includes(t.name)}
                    onChange={(e) => onChange(e.target.checked ? [...value, t.name] : value.filter((n) => n !== t.name))}
                  />
                  <span>
                    <span className="mono event-name">{t.name}</span> <span className="muted small">{t.summary}</span>
                  </span>
                </label>
              ))}
            </div>
          )}
        </QueryResult>
      )}
    </fieldset>
  );
}
