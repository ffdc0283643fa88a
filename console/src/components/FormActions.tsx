// A form's submit and cancel buttons, the same under every form of the console.
import { Button, Group } from '@mantine/core';

export function FormActions({ submit, busy, onCancel, disabled, color }: { submit: string; busy: boolean; onCancel: () => void; disabled?: boolean; color?: string }) {
  return (
    <Group mt="sm">
      <Button type="submit" loading={busy} disabled={disabled} color={color}>
        {submit}
      </Button>
      <Button variant="subtle" onClick={onCancel}>
        Cancel
      </Button>
    </Group>
  );
}
