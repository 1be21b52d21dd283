import { useApi } from '@backstage/frontend-plugin-api';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import useAsync from 'react-use/esm/useAsync';
import { capzApiRef } from '../../api/CapzApi';

/** The clusters page. For now it lists the configured management clusters; the cluster table comes next. */
export function ClustersPage() {
  const api = useApi(capzApiRef);
  const { value, loading, error } = useAsync(() => api.listManagementClusters(), [api]);

  return (
    <Box component="main" sx={{ p: 3 }}>
      <Typography variant="h4" component="h1" gutterBottom>
        AKS clusters
      </Typography>
      {loading && <CircularProgress aria-label="Loading management clusters" />}
      {error && (
        <Alert severity="error">Could not load management clusters: {error.message}</Alert>
      )}
      {value && value.items.length === 0 && (
        <Alert severity="info">
          No management cluster is configured. Add one under capz.managementClusters in app-config.yaml.
        </Alert>
      )}
      {value && value.items.length > 0 && (
        <>
          <Typography variant="h6" component="h2">
            Management clusters
          </Typography>
          <List aria-label="Management clusters">
            {value.items.map(c => (
              <ListItem key={c.name}>
                <ListItemText
                  primary={c.title ?? c.name}
                  secondary={`${c.name} · ${c.authMethod}${c.url ? ` · ${c.url}` : ''}`}
                />
              </ListItem>
            ))}
          </List>
        </>
      )}
    </Box>
  );
}
