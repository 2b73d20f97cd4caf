// The peer page of bench/inspectViewer.bench.ts, bundled by it with esbuild: the Inspect log viewer
// (@metrevals/inspect-log-viewer, a dev dependency) as its README embeds it, over its static HTTP
// API (one log file, `?log_file=` relative to the page), with the capabilities a web deployment has.
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { App, clientApi, initializeStore, simpleHttpApi } from '@metrevals/inspect-log-viewer';
import '@metrevals/inspect-log-viewer/styles/index.css';

const logFile = new URLSearchParams(location.search).get('log_file') ?? undefined;
const api = clientApi(simpleHttpApi(undefined, logFile));
initializeStore(api, { downloadFiles: false, downloadLogs: false, webWorkers: true, streamSamples: true, streamSampleData: true }, undefined);
createRoot(document.getElementById('root')).render(createElement(App, { api }));
