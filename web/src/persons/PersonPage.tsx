import { PageHeader } from '../ui/Page.tsx';

export function PersonPage({ personId }: { personId: string }) {
  return <PageHeader title={`Person ${personId}`} />;
}
