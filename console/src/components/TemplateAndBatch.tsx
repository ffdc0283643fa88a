// A live pricing template and one of its batches, chosen together: a bill run's and a new
// subscription's forms ask the same two things the same way.
import { useState } from 'react';
import { Select } from '@mantine/core';
import { useTemplates } from '../api/queries.ts';

/** The live templates and the choice; a template with one batch chooses it too. */
export function useTemplateChoice() {
  const templates = useTemplates();
  const live = (templates.data?.services ?? []).filter((s) => s.archiveStatus === 0);
  const [serviceCode, setServiceCode] = useState<string | null>(null);
  const [batchCode, setBatchCode] = useState<string | null>(null);
  const chooseTemplate = (code: string | null) => {
    setServiceCode(code);
    const t = live.find((s) => s.serviceCode === code);
    setBatchCode(t?.batches.length === 1 ? (t.batches[0] ?? null) : null);
  };
  return { live, template: live.find((s) => s.serviceCode === serviceCode), serviceCode, batchCode, chooseTemplate, setBatchCode };
}

export function TemplateAndBatch({ choice, errors }: { choice: ReturnType<typeof useTemplateChoice>; errors: Record<string, string | undefined> }) {
  return (
    <>
      <Select
        label="Template"
        placeholder={choice.live.length ? 'Choose' : 'No template yet: make one first'}
        data={choice.live.map((s) => ({ value: s.serviceCode, label: `${s.serviceLabel} (${s.serviceCode})` }))}
        value={choice.serviceCode}
        onChange={choice.chooseTemplate}
        allowDeselect={false}
        error={errors.serviceCode}
        required
      />
      {/* Picking the chosen batch again cleared it, with the raw rule as the error (an officer's walk). */}
      <Select label="Batch" placeholder="Choose" data={choice.template?.batches ?? []} value={choice.batchCode} onChange={choice.setBatchCode} allowDeselect={false} error={errors.batchCode} required />
    </>
  );
}
