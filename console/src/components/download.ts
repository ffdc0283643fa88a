// Files offered to the user: a CSV made in the browser (reading sheets, example files), or
// one the API answered (a bill's PDF, a print extract).
export function downloadCsv(fileName: string, csv: string): void {
  downloadBlob(fileName, new Blob([csv], { type: 'text/csv' }));
}

/** A file the API answered (a PDF, an extract), saved under fileName. */
export function downloadBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  // The browser reads the URL after the click returns; revoking at once can cancel the download.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A PDF opened in a new tab (the browser's own viewer). */
export function openBlob(blob: Blob): void {
  const url = URL.createObjectURL(blob);
  window.open(url, '_blank', 'noopener');
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
