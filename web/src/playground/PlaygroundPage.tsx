import { Card, PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { Playground } from './Playground.tsx';

/** Every flag for a made-up person: value and reason, nothing stored. */
export function PlaygroundPage() {
  useDocumentTitle('Flag playground');
  return (
    <>
      <PageHeader
        title="Flag playground"
        description="See what every flag gives a person with the properties you type. Nothing is stored and no stored person is read."
      />
      <Card>
        <Playground />
      </Card>
    </>
  );
}
