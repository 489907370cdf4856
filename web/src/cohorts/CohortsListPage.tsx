import { PageHeader } from '../ui/Page.tsx';

export function CohortsListPage() {
  return <PageHeader title="CohortsListPage" />;
}
