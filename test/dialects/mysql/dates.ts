import type { Group } from '../corpus.ts';
import { q, v } from '../corpus.ts';
import { date, int, time, ts } from '../want.ts';

/** MySQL 8.0 Reference Manual: https://dev.mysql.com/doc/refman/8.0/en/… */
const MY = 'https://dev.mysql.com/doc/refman/8.0/en/';

export const MYSQL_DATES: Group[] = [
  {
    family: 'date-arithmetic',
    doc: `${MY}date-and-time-functions.html#function_date-add (a DATE with day-or-larger units stays a DATE; a shorter month gives its last day), #function_adddate, #function_timestampadd, #function_makedate, #function_last-day, #function_to-days`,
    cases: [
      v("DATE_ADD(DATE '2008-12-25', INTERVAL 5 DAY)", date('2008-12-30')),
      v("DATE_SUB(DATE '2024-03-01', INTERVAL 365 DAY)", date('2023-03-02')),
      v("DATE_ADD(DATE '2024-01-31', INTERVAL 1 MONTH)", date('2024-02-29')),
      v("DATE_ADD(DATE '2024-02-29', INTERVAL 1 YEAR)", date('2025-02-28')),
      v("DATE_ADD(DATE '2024-11-30', INTERVAL 1 QUARTER)", date('2025-02-28')),
      v("DATE_ADD(DATE '2024-01-01', INTERVAL 2 WEEK)", date('2024-01-15')),
      v("DATE_ADD(DATE '2024-01-31', INTERVAL '1-2' YEAR_MONTH)", date('2025-03-31'), {
        unparsed: 'the SQL library does not parse the composite interval units (YEAR_MONTH, DAY_HOUR, …)',
      }),
      v("DATE_ADD(DATE '2024-01-01', INTERVAL 36 HOUR)", ts('2024-01-02 12:00:00')),
      v("DATE '2024-01-31' + INTERVAL 1 DAY", date('2024-02-01')),
      v("ADDDATE(DATE '2024-01-31', 5)", date('2024-02-05')),
      v("SUBDATE(DATE '2024-01-31', INTERVAL 1 MONTH)", date('2023-12-31')),
      v("DATE_ADD(TIMESTAMP '2024-01-01 22:00:00', INTERVAL 3 HOUR)", ts('2024-01-02 01:00:00')),
      v("TIMESTAMPADD(MINUTE, 30, TIMESTAMP '2024-01-01 10:00:00')", ts('2024-01-01 10:30:00')),
      v('MAKEDATE(2024, 60)', date('2024-02-29')),
      v("DATE(TIMESTAMP '2024-01-01 23:59:59')", date('2024-01-01')),
      v("LAST_DAY(DATE '2024-02-10')", date('2024-02-29')),
      v("TO_DAYS(DATE '2007-10-07')", int(733321)),
      v("DATE_SUB(DATE '2024-05-22', INTERVAL WEEKDAY(DATE '2024-05-22') DAY)", date('2024-05-20')),
    ],
  },
  {
    family: 'date-difference',
    doc: `${MY}date-and-time-functions.html#function_datediff (expr1 - expr2 in days, time parts ignored), #function_timestampdiff (datetime_expr2 - datetime_expr1 in complete units)`,
    cases: [
      v("DATEDIFF('2007-12-31 23:59:59', '2007-12-30')", int(1)),
      v("DATEDIFF('2010-11-30 23:59:59', '2010-12-31')", int(-31)),
      v("TIMESTAMPDIFF(MONTH, '2003-02-01', '2003-05-01')", int(3)),
      v("TIMESTAMPDIFF(YEAR, '2002-05-01', '2001-01-01')", int(-1)),
      v("TIMESTAMPDIFF(MINUTE, '2003-02-01', '2003-05-01 12:05:55')", int(128885)),
      v("TIMESTAMPDIFF(MONTH, '2024-01-31', '2024-02-29')", int(0)),
      v("TIMESTAMPDIFF(HOUR, '2024-01-01 10:59:00', '2024-01-01 11:00:00')", int(0)),
      v("TIMESTAMPDIFF(DAY, '2024-01-01', '2024-03-01')", int(60)),
    ],
  },
  {
    family: 'date-parts',
    doc: `${MY}date-and-time-functions.html#function_dayofweek (1 = Sunday), #function_weekday (0 = Monday), #function_week (mode 0 by default), #function_yearweek, #function_weekofyear, #function_extract (YEAR_MONTH, DAY_MINUTE), #function_dayname, #function_quarter`,
    cases: [
      v("DAYOFWEEK(DATE '2024-05-19')", int(1)),
      v("WEEKDAY(DATE '2024-05-19')", int(6)),
      v("DAYNAME(DATE '2024-05-19')", 'Sunday'),
      v("MONTHNAME(DATE '2024-05-19')", 'May'),
      v("DAYOFYEAR(DATE '2024-12-31')", int(366)),
      v("QUARTER(DATE '2024-05-20')", int(2)),
      v("YEAR(DATE '2024-05-20')", int(2024)),
      v("MONTH(DATE '2024-05-20')", int(5)),
      v("DAY(DATE '2024-05-20')", int(20)),
      v("HOUR(TIMESTAMP '2024-01-01 10:30:00')", int(10)),
      v("WEEK(DATE '2008-02-20')", int(7)),
      v("WEEK(DATE '2008-02-20', 1)", int(8)),
      v("WEEK(DATE '2008-12-31', 1)", int(53)),
      v("YEARWEEK(DATE '1987-01-01')", int(198652)),
      v("WEEKOFYEAR(DATE '2008-02-20')", int(8)),
      v("EXTRACT(YEAR_MONTH FROM '2019-07-02 01:02:03')", int(201907)),
      v("EXTRACT(DAY_MINUTE FROM '2019-07-02 01:02:03')", int(20102)),
      v("EXTRACT(YEAR FROM DATE '2019-07-02')", int(2019)),
    ],
  },
  {
    family: 'date-formatting',
    doc: `${MY}date-and-time-functions.html#function_date-format (specifiers %W %M %Y %H %i %s %D %y %a %d %m %b %j %k %I %r %T %S %w %X %V), #function_str-to-date`,
    cases: [
      v("DATE_FORMAT('2009-10-04 22:23:00', '%W %M %Y')", 'Sunday October 2009'),
      v("DATE_FORMAT('2007-10-04 22:23:00', '%H:%i:%s')", '22:23:00'),
      v("DATE_FORMAT('1900-10-04 22:23:00', '%D %y %a %d %m %b %j')", '4th 00 Thu 04 10 Oct 277'),
      v("DATE_FORMAT('1997-10-04 22:23:00', '%H %k %I %r %T %S %w')", '22 22 10 10:23:00 PM 22:23:00 00 6'),
      v("DATE_FORMAT('1999-01-01', '%X %V')", '1998 52'),
      v("DATE_FORMAT(DATE '2024-01-05', '%Y-%m-%d')", '2024-01-05'),
      v("STR_TO_DATE('01,5,2013', '%d,%m,%Y')", date('2013-05-01')),
      v("STR_TO_DATE('May 1, 2013', '%M %d,%Y')", date('2013-05-01')),
      v("STR_TO_DATE('a09:30:17', 'a%h:%i:%s')", time('09:30:17')),
      v("CAST('2024-01-15' AS DATE)", date('2024-01-15')),
      q(
        "SELECT DATE_FORMAT(d, '%Y-%m') AS m, COUNT(*) AS n FROM (SELECT DATE '2024-01-05' AS d UNION ALL SELECT DATE '2024-01-20' UNION ALL SELECT DATE '2024-02-01') AS t GROUP BY m ORDER BY m",
        [
          ['2024-01', int(2)],
          ['2024-02', int(1)],
        ],
        { ordered: true },
      ),
    ],
  },
];
