/**
 * chart.js as the analytics page draws with it: loaded on demand (AnalyticsChart imports this
 * module dynamically), so no other page downloads or compiles its ~170 KiB before asking for its
 * data (docs/benchmarks.md, issue 32).
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  ScatterController,
  Tooltip,
} from 'chart.js';

// Only what the analytics page draws (chart.js is tree-shaken to these): lines over time, bars per
// component and model, the correlation scatter, and the log scale the cost and token charts switch to.
Chart.register(
  LineController,
  LineElement,
  PointElement,
  BarController,
  BarElement,
  ScatterController,
  CategoryScale,
  LinearScale,
  LogarithmicScale,
  Tooltip,
  Legend,
);
Chart.defaults.font.family = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
// Drawn at once: a chart that animates is not there yet for a reader (or a screenshot).
Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;

export { Chart };
