import { PageHeader } from '../ui/Page.tsx';

export function PersonsListPage() {
  return <PageHeader title="PersonsListPage" />;
}
