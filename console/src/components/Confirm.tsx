// A button whose action cannot be undone lightly (post, reverse, cancel) asks once more.
import { useState, type ReactNode } from 'react';
import { Button, Group, Popover, Stack, Text, type ButtonProps } from '@mantine/core';

export function ConfirmButton({ children, question, onConfirm, ...props }: ButtonProps & { children: ReactNode; question: string; onConfirm: () => Promise<void> | void }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  return (
    <Popover opened={open} onChange={setOpen} trapFocus withArrow shadow="md" position="bottom-start">
      <Popover.Target>
        <Button {...props} onClick={() => setOpen((o) => !o)}>
          {children}
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="xs" maw={320}>
          <Text size="sm">{question}</Text>
          <Group gap="xs">
            <Button
              size="xs"
              color={props.color}
              loading={busy}
              onClick={async () => {
                setBusy(true);
                try {
                  await onConfirm();
                } finally {
                  setBusy(false);
                  setOpen(false);
                }
              }}
            >
              Yes
            </Button>
            <Button size="xs" variant="default" onClick={() => setOpen(false)}>
              No
            </Button>
          </Group>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
