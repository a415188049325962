// The dashboard renders in the browser: it calls the API over HTTP with the user's own credentials.
export const ssr = false;
export const prerender = false;
