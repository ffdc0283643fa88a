// The reads several pages share, each under one query key so that a write can refresh it.
import { useQuery } from '@tanstack/react-query';
import { read } from './client.ts';

export function useTemplates() {
  return useQuery({
    queryKey: ['services'],
    queryFn: () => read('/billing/services/get-services', { method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2' }),
  });
}

export function useBatches() {
  return useQuery({
    queryKey: ['batches'],
    queryFn: () => read('/billing/batches/get-batches', { method: 'Retrieve', action: 'Retrieve Batches', apiVersion: 'v2' }),
  });
}

export function useTerm(termID: number, refetchInterval: (status: string | undefined) => number | false) {
  return useQuery({
    queryKey: ['term', termID],
    queryFn: async () => {
      const d = await read('/billing/terms/get-terms', { method: 'Retrieve', action: 'Retrieve Terms', apiVersion: 'v2', operation: 'schedule', data: { termID } });
      const t = d.terms[0];
      if (!t) throw new Error(`No term ${termID}.`);
      return t;
    },
    refetchInterval: (q) => refetchInterval(q.state.data?.status),
  });
}

/** The app's invoice and e-mail templates, archived ones included (a template may still name one). */
export function useDocumentTemplates() {
  return useQuery({
    queryKey: ['document-templates'],
    queryFn: () => read('/billing/documents/get-document-templates', { method: 'Retrieve', action: 'Retrieve Document Templates', apiVersion: 'v2', data: {} }),
  });
}
