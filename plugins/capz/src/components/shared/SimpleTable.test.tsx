import { render, screen } from '@testing-library/react';
import { SimpleTable } from './SimpleTable';

/** jsdom lays nothing out: each test says how wide the box and its content are. */
function widths(scroll: number, client: number) {
  const s = jest
    .spyOn(HTMLElement.prototype, 'scrollWidth', 'get')
    .mockReturnValue(scroll);
  const c = jest
    .spyOn(HTMLElement.prototype, 'clientWidth', 'get')
    .mockReturnValue(client);
  return () => {
    s.mockRestore();
    c.mockRestore();
  };
}

const table = () => (
  <SimpleTable label="Condition transitions" columns={['Time', 'Status']}>
    <tr>
      <td>now</td>
      <td>True</td>
    </tr>
  </SimpleTable>
);

describe('SimpleTable', () => {
  it('lets the keyboard reach a table that scrolls sideways (a focusable, named group)', () => {
    const restore = widths(1400, 900);
    try {
      render(table());
      const scroller = screen.getByRole('group', {
        name: 'Condition transitions, scrolls sideways',
      });
      expect(scroller).toHaveAttribute('tabindex', '0');
      expect(scroller).toContainElement(
        screen.getByRole('table', { name: 'Condition transitions' }),
      );
    } finally {
      restore();
    }
  });

  it('adds no tab stop to a table that fits', () => {
    const restore = widths(900, 900);
    try {
      render(table());
      expect(screen.queryByRole('group')).toBeNull();
      expect(document.querySelector('[tabindex]')).toBeNull();
    } finally {
      restore();
    }
  });
});
