/** `value`, or the error `notFound` makes when there is none: a route's 404 for what it was asked for. */
export function orNotFound<T>(value: T | null | undefined, notFound: () => Error): T {
  if (!value) throw notFound();
  return value;
}
