// Every table of the console: TanStack Table for the columns, Mantine for the look. Rows
// come a page at a time from the server (the pager below), never all at once.
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
import { Button, Group, Loader, ScrollArea, Table, Text } from '@mantine/core';

export type Column<T> = ColumnDef<T, any>;

type Props<T> = {
  columns: Column<T>[];
  data: T[] | undefined;
  loading?: boolean;
  empty?: string;
  onRowClick?: (row: T) => void;
  rowLabel?: (row: T) => string;
  testId?: string;
  highlight?: (row: T) => string | undefined;
};

export function DataTable<T>({ columns, data, loading, empty = 'Nothing here yet.', onRowClick, rowLabel, testId, highlight }: Props<T>) {
  const table = useReactTable({ data: data ?? [], columns, getCoreRowModel: getCoreRowModel() });
  return (
    <ScrollArea type="auto">
      <Table striped highlightOnHover={!!onRowClick} withTableBorder verticalSpacing={6} data-testid={testId}>
        <Table.Thead>
          {table.getHeaderGroups().map((hg) => (
            <Table.Tr key={hg.id}>
              {hg.headers.map((h) => (
                <Table.Th key={h.id} style={{ whiteSpace: 'nowrap', textAlign: (h.column.columnDef.meta as { align?: 'right' } | undefined)?.align }}>
                  {h.isPlaceholder ? null : flexRender(h.column.columnDef.header, h.getContext())}
                </Table.Th>
              ))}
            </Table.Tr>
          ))}
        </Table.Thead>
        <Table.Tbody>
          {table.getRowModel().rows.map((row) => (
            <Table.Tr
              key={row.id}
              bg={highlight?.(row.original)}
              style={onRowClick ? { cursor: 'pointer' } : undefined}
              // Rows that open something are reachable by Tab and opened by Enter.
              tabIndex={onRowClick ? 0 : undefined}
              aria-label={rowLabel?.(row.original)}
              onClick={onRowClick ? () => onRowClick(row.original) : undefined}
              onKeyDown={onRowClick ? (e) => e.key === 'Enter' && onRowClick(row.original) : undefined}
            >
              {row.getVisibleCells().map((cell) => (
                <Table.Td key={cell.id} style={{ textAlign: (cell.column.columnDef.meta as { align?: 'right' } | undefined)?.align }}>
                  {flexRender(cell.column.columnDef.cell, cell.getContext())}
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {loading && (
        <Group justify="center" p="sm">
          <Loader size="sm" />
        </Group>
      )}
      {!loading && data && data.length === 0 && (
        <Text c="dimmed" p="sm">
          {empty}
        </Text>
      )}
    </ScrollArea>
  );
}

/** Offset paging, as the API's list operations answer it (paging: { limit, offset, total }). */
export function Pager({ paging, onOffset }: { paging: { limit: number; offset: number; total: number; totalCapped?: boolean } | undefined; onOffset: (offset: number) => void }) {
  if (!paging || paging.total === 0) return null;
  const { limit, offset, total } = paging;
  const last = Math.min(offset + limit, total);
  return (
    <Group justify="space-between" mt="xs">
      <Text size="sm" c="dimmed">
        {total === 0 ? 'No rows' : `Rows ${offset + 1}–${last} of ${paging.totalCapped ? 'more than ' : ''}${total.toLocaleString()}`}
      </Text>
      <Group gap="xs">
        <Button size="xs" variant="default" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
          Previous
        </Button>
        <Button size="xs" variant="default" disabled={last >= total && !paging.totalCapped} onClick={() => onOffset(offset + limit)}>
          Next
        </Button>
      </Group>
    </Group>
  );
}

/** Keyset paging (get-bills: afterBillID): a stack of the pages' first keys. */
export function KeysetPager({ page, hasMore, onPrevious, onNext }: { page: number; hasMore: boolean; onPrevious: () => void; onNext: () => void }) {
  return (
    <Group justify="flex-end" gap="xs" mt="xs">
      <Text size="sm" c="dimmed">
        Page {page + 1}
      </Text>
      <Button size="xs" variant="default" disabled={page === 0} onClick={onPrevious}>
        Previous
      </Button>
      <Button size="xs" variant="default" disabled={!hasMore} onClick={onNext}>
        Next
      </Button>
    </Group>
  );
}
