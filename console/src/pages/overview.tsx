import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { allEvents, type EventView } from '../api.ts';
import { ErrorNote, Loading, type PageProps, Section, useLoad } from '../ui.tsx';

const OUTCOMES = [
  ['message.delivered', 'delivered', '#2e7d32'],
  ['message.bounced', 'bounced', '#c62828'],
  ['message.complained', 'complained', '#6a1b9a'],
  ['message.deferred', 'deferred', '#ef6c00'],
  ['message.rejected', 'rejected', '#455a64'],
  ['message.failed', 'failed', '#000000'],
] as const;
const DAYS = 30;
const DAY = 86_400_000;

/** Per UTC day of the last 30, the count of each outcome event (the tenant's events feed). */
export function perDay(events: EventView[], today: number) {
  const start = Math.floor(today / DAY) * DAY - (DAYS - 1) * DAY;
  const days = Array.from({ length: DAYS }, (_, i) => (start + i * DAY) / 1000);
  const counts = OUTCOMES.map(() => new Array<number>(DAYS).fill(0));
  for (const e of events) {
    const i = Math.floor((Date.parse(e.created_at) - start) / DAY);
    const o = OUTCOMES.findIndex(([type]) => type === e.type);
    if (i >= 0 && i < DAYS && o >= 0) counts[o][i]++;
  }
  return { days, counts };
}

function Chart({
  title,
  data,
  series,
  yLabel,
}: {
  title: string;
  data: uPlot.AlignedData;
  series: uPlot.Series[];
  yLabel: string;
}) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!el.current) return;
    const plot = new uPlot(
      {
        title,
        width: Math.min(900, el.current.clientWidth || 900),
        height: 260,
        series: [{}, ...series],
        axes: [{}, { label: yLabel }],
      },
      data,
      el.current,
    );
    return () => plot.destroy();
  }, [data]);
  return <div ref={el} class="chart" role="img" aria-label={title} />;
}

export function Overview(_: PageProps) {
  const events = useLoad(() => allEvents(), []);
  const { days, counts } = perDay(events.value ?? [], Date.now());
  const total = (o: number) => counts[o].reduce((a, b) => a + b, 0);
  const delivered = total(0);
  const bounced = total(1);
  const complained = total(2);
  const reached = delivered + bounced;
  const rate = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(2)} %` : '—');
  const daily = (n: number[], of: number[]) => n.map((x, i) => (of[i] ? (100 * x) / of[i] : null));
  const reachedDaily = counts[0].map((d, i) => d + counts[1][i]);
  return (
    <>
      <ErrorNote error={events.error} />
      <Loading when={events.loading} />
      <Section title="Last 30 days">
        <dl class="figures">
          <dt>Delivered</dt>
          <dd>{delivered}</dd>
          <dt>Bounced</dt>
          <dd>{bounced}</dd>
          <dt>Complained</dt>
          <dd>{complained}</dd>
          <dt>Bounce rate</dt>
          <dd>{rate(bounced, reached)}</dd>
          <dt>Complaint rate</dt>
          <dd>{rate(complained, delivered)}</dd>
        </dl>
      </Section>
      {events.value ? (
        <>
          <Chart
            title="Sends per day by outcome"
            yLabel="recipients"
            data={[days, ...counts]}
            series={OUTCOMES.map(([, label, stroke]) => ({ label, stroke, width: 2 }))}
          />
          <Chart
            title="Bounce and complaint rates per day"
            yLabel="%"
            data={[days, daily(counts[1], reachedDaily), daily(counts[2], counts[0])] as uPlot.AlignedData}
            series={[
              { label: 'bounce rate %', stroke: '#c62828', width: 2, spanGaps: true },
              { label: 'complaint rate %', stroke: '#6a1b9a', width: 2, spanGaps: true },
            ]}
          />
        </>
      ) : null}
    </>
  );
}
