/** What each store answers besides its data: health (GET /health) and shutdown. */
export interface StoreConnection {
  /** True when the store answers; the metadata store rejects when PostgreSQL does not. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
