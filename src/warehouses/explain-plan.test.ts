import { describe, expect, it } from 'vitest';
import { parseMysqlExplain, parsePgExplain, pgPlanRelations } from './explain-plan.ts';

const pgPlan = [
  {
    Plan: {
      'Node Type': 'Hash Join',
      'Total Cost': 120.5,
      'Plan Rows': 40,
      Plans: [
        { 'Node Type': 'Seq Scan', 'Relation Name': 'lineitem', 'Plan Rows': 300, 'Plan Width': 16 },
        {
          'Node Type': 'Hash',
          Plans: [{ 'Node Type': 'Index Scan', 'Relation Name': 'orders', 'Plan Rows': 12, 'Plan Width': 8 }],
        },
      ],
    },
  },
];

describe('parsePgExplain', () => {
  it('charges full scans the relation and index scans a page per row', () => {
    const sizes = new Map([
      ['lineitem', { pages: 90, rows: 8000 }],
      ['orders', { pages: 30, rows: 2000 }],
    ]);
    expect(parsePgExplain(pgPlan, sizes)).toMatchObject({
      rowsScanned: 8000 + 12,
      rowsReturned: 40,
      pages: 90 + 12,
      totalCost: 120.5,
    });
    expect(pgPlanRelations(pgPlan).sort()).toEqual(['lineitem', 'orders']);
  });

  it('falls back to rows × width when the relation size is unknown', () => {
    expect(parsePgExplain(pgPlan, new Map()).pages).toBe(Math.ceil((300 * 16) / 8192) + 1);
  });

  it('refuses a document without a plan', () => {
    expect(() => parsePgExplain({}, new Map())).toThrow();
  });
});

describe('parseMysqlExplain', () => {
  it('reads MySQL 8 plans (rows_examined_per_scan, cost_info)', () => {
    const plan = {
      query_block: {
        cost_info: { query_cost: '812.25' },
        nested_loop: [
          {
            table: {
              table_name: 'orders',
              access_type: 'ALL',
              rows_examined_per_scan: 2000,
              rows_produced_per_join: 200,
            },
          },
          {
            table: {
              table_name: 'lineitem',
              access_type: 'ref',
              rows_examined_per_scan: 4,
              rows_produced_per_join: 800,
            },
          },
        ],
      },
    };
    const sizes = new Map([
      ['orders', { pages: 20, rows: 2000 }],
      ['lineitem', { pages: 97, rows: 8000 }],
    ]);
    expect(parseMysqlExplain(plan, sizes)).toMatchObject({
      rowsScanned: 2004,
      rowsReturned: 800,
      pages: 24,
      totalCost: 812.25,
    });
  });

  it('reads MariaDB plans (rows, filtered; no cost)', () => {
    const plan = {
      query_block: {
        select_id: 1,
        table: { table_name: 'lineitem', access_type: 'ALL', rows: 8000, filtered: 50 },
      },
    };
    expect(parseMysqlExplain(plan, new Map([['lineitem', { pages: 97, rows: 8000 }]]))).toMatchObject({
      rowsScanned: 8000,
      rowsReturned: 4000,
      pages: 97,
      totalCost: 8000,
    });
  });
});
