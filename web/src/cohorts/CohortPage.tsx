import { PageHeader } from '../ui/Page.tsx';

export function CohortPage({ cohortId }: { cohortId: number | null }) {
  return <PageHeader title={cohortId === null ? 'New cohort' : `Cohort ${cohortId}`} />;
}
