import { PageHeader } from '../ui/Page.tsx';

export function ActivityPage() {
  return <PageHeader title="ActivityPage" />;
}
