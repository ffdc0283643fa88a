// A print extract's buttons (CSV, JSON lines, one PDF): each fetches its file from the API
// and saves it; one at a time, a refusal shown as a notification. The term's bills and a
// span of days' credit notes are offered alike.
import { useState } from 'react';
import { Button } from '@mantine/core';
import { notifyError } from './feedback.tsx';
import { downloadBlob } from './download.ts';

export type ExtractFormat = 'csv' | 'jsonl' | 'pdf';
const EXT: Record<ExtractFormat, string> = { csv: 'csv', jsonl: 'jsonl', pdf: 'pdf' };

/** fetch: the file of a format (fetchFile of the extract's operation); name: the file's name without its extension. */
export function ExtractButtons({ formats, fetch, name }: { formats: readonly { format: ExtractFormat; label: string }[]; fetch: (format: ExtractFormat) => Promise<{ blob: Blob }>; name: string }) {
  const [busy, setBusy] = useState<ExtractFormat | null>(null);
  const extract = async (format: ExtractFormat) => {
    setBusy(format);
    try {
      downloadBlob(`${name}.${EXT[format]}`, (await fetch(format)).blob);
    } catch (err) {
      notifyError(err);
    } finally {
      setBusy(null);
    }
  };
  return (
    <>
      {formats.map((f) => (
        <Button key={f.format} size="xs" variant="default" loading={busy === f.format} disabled={busy !== null} onClick={() => void extract(f.format)}>
          {f.label}
        </Button>
      ))}
    </>
  );
}
