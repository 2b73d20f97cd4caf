/**
 * Compare / group webview entry (bundled to dist/compare.js): registers `<ti-compare>`, which
 * takes it from there (ready handshake, messages, rendering). Browser-only.
 */
import './components/ti-compare';
