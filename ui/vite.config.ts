// Vite builds ui/dist, which tauri embeds into the app binary (src-tauri/tauri.conf.json).
// Vitest runs the UI tests in jsdom.
import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

export default defineConfig({
  plugins: [react()],
  // Relative asset URLs: the app serves dist/ from its own protocol, not a web root.
  base: "./",
  clearScreen: false,
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "safari16",
    // The strict CSP allows no inline scripts; keep every module an external file.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1024,
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
  },
});
