export default function DefinitionsListPage(_props: { definitionId?: string }) {
  return null;
}
