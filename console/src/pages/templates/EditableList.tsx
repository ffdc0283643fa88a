// A card of the template form holding a list edited row by row (bank accounts, connection
// details, values): its title and add button, what it is for, and a table of the rows, each
// ending with its remove button.
import type { ReactNode } from 'react';
import { ActionIcon, Button, Card, Group, Table, Text, Title } from '@mantine/core';

export function EditableList(p: {
  title: string;
  addLabel: string;
  onAdd: () => void;
  hint: ReactNode;
  heads: readonly string[];
  count: number;
  /** Row i's cells (Table.Td elements). */
  cells: (i: number) => ReactNode;
  removeLabel: (i: number) => string;
  onRemove: (i: number) => void;
}) {
  return (
    <Card withBorder>
      <Group justify="space-between" mb="xs">
        <Title order={4}>{p.title}</Title>
        <Button size="xs" variant="default" onClick={p.onAdd}>
          {p.addLabel}
        </Button>
      </Group>
      <Text size="xs" c="dimmed" mb="xs">
        {p.hint}
      </Text>
      {p.count > 0 && (
        <Table>
          <Table.Thead>
            <Table.Tr>
              {[...p.heads, ''].map((h, i) => (
                <Table.Th key={i}>{h}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {Array.from({ length: p.count }, (_, i) => (
              <Table.Tr key={i}>
                {p.cells(i)}
                <Table.Td>
                  <ActionIcon variant="subtle" color="red" aria-label={p.removeLabel(i)} onClick={() => p.onRemove(i)}>
                    ✕
                  </ActionIcon>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}
