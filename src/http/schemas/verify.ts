import { Type } from 'typebox';

const Row = Type.Object({}, { additionalProperties: true, description: 'A row: column name → value' });

export const VerifyRequest = Type.Object(
  {
    original: Type.Array(Row, { description: 'Result set of the original query' }),
    rewritten: Type.Array(Row, { description: 'Result set of the rewritten query' }),
    key: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Columns that pair rows; a paired row that differs is one entry',
      }),
    ),
    tolerance: Type.Optional(
      Type.Object(
        { abs: Type.Optional(Type.Number({ minimum: 0 })), rel: Type.Optional(Type.Number({ minimum: 0 })) },
        {
          description: 'Numbers a, b also match when |a−b| ≤ max(abs, rel·max(|a|,|b|))',
        },
      ),
    ),
    max_differences: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000, default: 100 })),
  },
  { additionalProperties: true },
);

const Difference = Type.Object({
  row: Type.Integer({ description: 'Index in original when original is not null, else index in rewritten' }),
  original: Type.Union([Row, Type.Null()]),
  rewritten: Type.Union([Row, Type.Null()]),
  rewritten_row: Type.Optional(Type.Integer({ description: 'Key-paired entries: the index in rewritten' })),
});

export const VerifyResultSchema = Type.Object({
  equal: Type.Boolean(),
  differences: Type.Array(Difference),
  summary: Type.Object({
    original_rows: Type.Integer(),
    rewritten_rows: Type.Integer(),
    missing: Type.Integer(),
    extra: Type.Integer(),
    changed: Type.Integer(),
  }),
  truncated: Type.Boolean({ description: 'true when differences were cut at max_differences' }),
});
