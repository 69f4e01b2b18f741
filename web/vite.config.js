// Builds the console into the build tree (CMake passes --outDir BUILD/console); served by the
// engine at /console/, so every asset URL is under that base.
import { defineConfig } from "vite";

export default defineConfig({
  base: "/console/",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    // No inline scripts or styles: the engine serves a strict Content-Security-Policy.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
