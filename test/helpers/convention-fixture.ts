/**
 * What a file of test/fixtures/conventions promises about the span it normalizes to (the unit
 * tests of the normalizer and the end-to-end tests through a real exporter read the same files);
 * `*_json` compares the parsed text.
 */
export interface FixtureExpectation {
  convention: string;
  span_type: string;
  component_type: string | null;
  model: string | null;
  input_tokens: number;
  output_tokens: number;
  status: 'ok' | 'error';
  status_message: string;
  duration_ms: number;
  kind: string;
  input?: string;
  input_json?: unknown;
  output?: string;
  output_json?: unknown;
  /** Generation spans: the conversation the API shows (core/messages; test/unit/messages). */
  llm?: unknown;
}
