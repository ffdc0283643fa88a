import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Served by the API process at /console (src/app.ts); every asset is bundled, nothing is
// fetched from another host at run time.
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
});
