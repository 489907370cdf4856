export default function DefinitionPage(_props: { definitionId?: string }) {
  return null;
}
