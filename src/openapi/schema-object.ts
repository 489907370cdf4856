/** A JSON Schema object as OpenAPI 3.0 writes it (the document is plain JSON). */
export type SchemaObject = { [keyword: string]: unknown };
