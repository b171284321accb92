import { useState } from 'react';
import { useSearchParams } from 'wouter';

/** The address's keys that hold a list's paging (the cursors of the pages before): `pages`, `pages-<list>`. */
const PAGING = /^pages(-|$)/;

/**
 * A page's view in its address: its filters, the page of a list and an open
 * detail are query parameters (?status=failed&pages=…&open=…), so a link, a
 * reload or Back opens the same view. `set` changes some of them: a filter
 * replaces the address and starts its lists again at their first page;
 * paging and opening a detail push a new entry (Back returns to the view
 * before).
 */
export function useAddress() {
  const [params, setParams] = useSearchParams();
  return {
    get: (key: string): string => params.get(key) ?? '',
    set(changes: Record<string, string | number | null>, options: { paging?: boolean } = {}) {
      setParams(
        (previous) => {
          const next = new URLSearchParams(previous);
          if (!options.paging) for (const key of [...next.keys()]) if (PAGING.test(key)) next.delete(key);
          for (const [key, value] of Object.entries(changes)) {
            if (value === null || value === '') next.delete(key);
            else next.set(key, String(value));
          }
          return next;
        },
        { replace: !options.paging },
      );
    },
  };
}

/** A number of the address (a page size), or `fallback` when it is missing or not one of `choices`. */
export function numberIn(value: string, choices: readonly number[], fallback: number): number {
  return choices.find((c) => String(c) === value) ?? fallback;
}

/**
 * A text field whose value is the address's until the user types: it follows
 * the address when that changes (back, a link), and is the user's meanwhile
 * (applied with address.set). State adjusted during render, not in an effect.
 */
export function useAddressField(inAddress: string): [string, (text: string) => void] {
  const [text, setText] = useState(inAddress);
  const [seen, setSeen] = useState(inAddress);
  if (inAddress !== seen) {
    setSeen(inAddress);
    setText(inAddress);
  }
  return [text, setText];
}
