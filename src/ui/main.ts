import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { html } from 'htm/preact';
import { render } from 'preact';
import { systemClock } from '../core/clock.js';
import { systemRandom } from '../core/random.js';
import { ApiTransport, storageTokenStore } from './store/transport.js';
import { App, type AppEnv } from './views/app.js';

/** The dashboard's entry point, bundled by scripts/build-ui.ts into dist/ui and served by src/api/ui-routes.ts. */
const tokens = storageTokenStore(window.sessionStorage);
const env: AppEnv = {
  tokens,
  transport: new ApiTransport({ fetch: (url, init) => window.fetch(url, init), token: () => tokens.get() }),
  clock: systemClock,
  random: systemRandom,
};
const root = document.getElementById('app');
if (root !== null) render(html`<${App} env=${env} />`, root);
