import type { LlmParameters } from '../../model/messages.js';
import { stringList } from '../json.js';
import { addParameter } from '../parameters.js';
import { textMessages } from '../shapes.js';
import type { MessageConvention } from '../source.js';

/**
 * The SPEC's generation span: `input` ("prompt or call input") and `output` ("response"), text or
 * JSON (the JSON ingest body stores a structured value as its JSON text, so an OpenAI-style list
 * of messages, a request body or a response reads as messages), `temperature`, `stop_reason`.
 * Also the last resort for every other convention: the span's normalized input and output.
 */
export const spec: MessageConvention = {
  name: 'spec',
  turns(r) {
    const finish = stringList(r.attrs.stop_reason);
    const output = textMessages(r.field('output'), 'assistant');
    // One answer and one stop_reason: the reason is that answer's.
    if (finish?.length === 1 && output?.length === 1 && output[0].finish_reason === undefined) output[0].finish_reason = finish[0];
    return { messages: textMessages(r.field('input'), 'user'), output_messages: output };
  },
  tools: () => null,
  parameters(r) {
    const out: LlmParameters = {};
    for (const key of ['temperature', 'max_tokens', 'top_p']) addParameter(out, key, r.attrs[key]);
    return out;
  },
  finishReasons: (r) => stringList(r.attrs.stop_reason),
};
