import { describe, expect, it } from 'vitest';
import { withoutCsvHeader } from '../../../ui/src/lib/trace-export.js';

describe('the bulk export of picked traces', () => {
  it("keeps one CSV header: another trace's rows lose theirs, their quoted line breaks kept", () => {
    const csv = '"trace_id","output"\r\n"t2","Paragraph one.\n\nParagraph two."\r\n"t2","x"\r\n';
    expect(withoutCsvHeader(csv)).toBe('"t2","Paragraph one.\n\nParagraph two."\r\n"t2","x"\r\n');
    // A trace with no rows answers the header alone.
    expect(withoutCsvHeader('"trace_id","output"\r\n')).toBe('');
    expect(withoutCsvHeader('')).toBe('');
  });
});
