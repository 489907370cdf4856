import { useLocation } from 'wouter';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { TabPanel, Tabs } from '../ui/Tabs.tsx';
import { ApprovalsSettings } from '../approvals/ApprovalsSettings.tsx';
import { AccountSettings } from './AccountSettings.tsx';
import { ApiKeysSettings } from './ApiKeysSettings.tsx';
import { MembersSettings } from './MembersSettings.tsx';
import { ProjectSettings } from './ProjectSettings.tsx';
import { WebhooksSettings } from './WebhooksSettings.tsx';

const TABS = [
  { id: 'project', label: 'Project' },
  { id: 'members', label: 'Members' },
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'approvals', label: 'Approvals' },
  { id: 'personal-api-keys', label: 'Personal API keys' },
  { id: 'account', label: 'Account' },
];

export function SettingsPage({ tab }: { tab: string }) {
  const [, navigate] = useLocation();
  const selected = TABS.find((item) => item.id === tab) ?? TABS[0];
  useDocumentTitle(`${selected.label} settings`);
  return (
    <>
      <PageHeader title="Settings" />
      <Tabs tabs={TABS} selected={selected.id} onSelect={(id) => navigate(`/settings/${id}`)} label="Settings" idPrefix="settings" />
      <TabPanel idPrefix="settings" id={selected.id}>
        {selected.id === 'project' ? <ProjectSettings /> : null}
        {selected.id === 'members' ? <MembersSettings /> : null}
        {selected.id === 'webhooks' ? <WebhooksSettings /> : null}
        {selected.id === 'approvals' ? <ApprovalsSettings /> : null}
        {selected.id === 'personal-api-keys' ? <ApiKeysSettings /> : null}
        {selected.id === 'account' ? <AccountSettings /> : null}
      </TabPanel>
    </>
  );
}
