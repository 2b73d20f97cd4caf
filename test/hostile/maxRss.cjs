// Preloaded (`node -r`) into a CLI child of memory.test.ts: writes the process's peak resident set
// size (KiB, process.resourceUsage().maxRSS) to the file named by TI_MAXRSS_FILE when it exits.
const fs = require('node:fs');
process.on('exit', () => {
  if (process.env.TI_MAXRSS_FILE) fs.writeFileSync(process.env.TI_MAXRSS_FILE, String(process.resourceUsage().maxRSS));
});
