import { expect } from 'vitest';

/** A page's filters and the two functions that write them into its URL and read them back. */
export interface FiltersInUrl<F> {
  toQuery: (filters: F) => URLSearchParams;
  parse: (query: URLSearchParams) => F;
}

/** Writes `filters` into a URL query, checks the text a user would see, and reads the same filters back from it. */
export function expectUrlRoundTrip<F>(codec: FiltersInUrl<F>, filters: F, queryText: string): void {
  const query = codec.toQuery(filters);
  expect(query.toString()).toBe(queryText);
  expect(codec.parse(query)).toEqual(filters);
}
