import { useState } from 'react';
import { CopyField } from '../ui/CopyField.tsx';
import { ErrorNotice, Spinner } from '../ui/Feedback.tsx';
import { TabPanel, Tabs } from '../ui/Tabs.tsx';
import { useGeneratedCode } from './api.ts';

const LANGUAGES = [
  { id: 'typescript', label: 'TypeScript' },
  { id: 'python', label: 'Python' },
  { id: 'golang', label: 'Go' },
] as const;
type Language = (typeof LANGUAGES)[number]['id'];

function Generated({ language }: { language: Language }) {
  const code = useGeneratedCode(language);
  if (code.isPending) return <Spinner label="Generating…" />;
  if (code.isError) return <ErrorNotice error={code.error} onRetry={() => void code.refetch()} />;
  return (
    <div className="stack-sm code-output">
      <span className="muted small">
        {code.data.event_count} events · schema {code.data.schema_hash.slice(0, 12)} · generator {code.data.generator_version}
      </span>
      <CopyField label={`Generated ${LANGUAGES.find((item) => item.id === language)?.label} code`} value={code.data.content} multiline />
    </div>
  );
}

/** The project's events as typed capture code for posthog-js, posthog-python and posthog-go, with a copy button. */
export function CodeTabs() {
  const [language, setLanguage] = useState<Language>('typescript');
  return (
    <>
      <Tabs tabs={[...LANGUAGES]} selected={language} onSelect={(id) => setLanguage(id as Language)} label="Language" idPrefix="codegen" />
      <TabPanel idPrefix="codegen" id={language}>
        <Generated key={language} language={language} />
      </TabPanel>
    </>
  );
}
