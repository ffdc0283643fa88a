import { Table } from '@mantine/core';

/** The meters table's header, the same in the form and on the template's page. */
export function MeterHead({ withAction = false }: { withAction?: boolean }) {
  return (
    <Table.Thead>
      <Table.Tr>
        <Table.Th>Code</Table.Th>
        <Table.Th>Label</Table.Th>
        <Table.Th>Unit</Table.Th>
        <Table.Th>Decimals</Table.Th>
        <Table.Th>Reads</Table.Th>
        <Table.Th>Rolls over at</Table.Th>
        {withAction && <Table.Th />}
      </Table.Tr>
    </Table.Thead>
  );
}
