import { Button, Group } from '@mantine/core';

/** A form's submit and cancel. */
export function SubmitOrCancel({ label, busy, onCancel }: { label: string; busy: boolean; onCancel: () => void }) {
  return (
    <Group mt="sm">
      <Button type="submit" loading={busy}>
        {label}
      </Button>
      <Button variant="subtle" onClick={onCancel}>
        Cancel
      </Button>
    </Group>
  );
}
