import { generation, span, tool, trace } from 'agent-eval/sdk';

/**
 * A small tool-calling agent shared by the examples: it routes the question, "calls a model"
 * (a deterministic stand-in, so the examples run offline), calls a forecast tool and answers.
 * Every step is a span of the SPEC's kinds; run inside evaluate() they join the case's trace.
 */

const FORECASTS: Record<string, { sky: string; celsius: number }> = {
  paris: { sky: 'sunny', celsius: 24 },
  oslo: { sky: 'snow', celsius: -3 },
  lima: { sky: 'cloudy', celsius: 18 },
};

export interface WeatherQuestion {
  query: string;
}

/** The forecast tool: a real agent would call an API here. */
async function getForecast(city: string): Promise<{ sky: string; celsius: number }> {
  await new Promise((r) => setTimeout(r, 5));
  const forecast = FORECASTS[city.toLowerCase()];
  if (!forecast) throw new Error(`no forecast for ${city}`);
  return forecast;
}

/** Answers a weather question; `style` changes the wording (the experiment's treatment). */
export async function weatherAgent(question: WeatherQuestion, style: 'plain' | 'friendly' = 'plain'): Promise<string> {
  return trace('weather agent', { input: question }, async (root) => {
    const city = span('routing', 'pick a tool', (s) => {
      const match = /in ([A-Z][a-z]+)/.exec(question.query);
      s.setSelection({
        category: match ? 'weather' : 'smalltalk',
        confidence: match ? 0.92 : 0.4,
        reason: match ? 'names a city' : 'no city',
        alternatives: ['search_web', 'get_forecast'],
      });
      return match?.[1];
    });
    if (!city) {
      root.setOutput('Which city?');
      return 'Which city?';
    }
    // The model decides to call the tool (recorded as a finished generation).
    generation({
      model: 'demo-model-1',
      input: [{ role: 'user', content: question.query }],
      output: { tool_call: 'get_forecast', city },
      usage: { input_tokens: 42, output_tokens: 9 },
      temperature: 0,
    });
    let forecast: { sky: string; celsius: number } | undefined;
    try {
      forecast = await tool({ name: 'get_forecast', input: { city } }, async (t) => {
        const result = await getForecast(city);
        t.setOutput(result);
        return result;
      });
    } catch {
      forecast = undefined;
    }
    const answer = forecast
      ? style === 'friendly'
        ? `Good news! It is ${forecast.sky} in ${city}, ${forecast.celsius} °C.`
        : `It is ${forecast.sky} in ${city}, ${forecast.celsius} °C.`
      : `Sorry, I have no forecast for ${city}.`;
    generation({ model: 'demo-model-1', input: forecast, usage: { input_tokens: 30, output_tokens: 12 } }, (g) => {
      g.setOutput(answer);
    });
    root.setOutput(answer);
    return answer;
  });
}
