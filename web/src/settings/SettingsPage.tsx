import { PageHeader } from '../ui/Page.tsx';

export function SettingsPage({ tab }: { tab: string }) {
  return <PageHeader title={`Settings: ${tab}`} />;
}
